/*
 * conn_settings.c - the connection settings of a command, from the options
 * (see conn_settings.h). The strings stay the option table's: they live as
 * long as the command.
 */
#include "conn_settings.h"

#include <string.h>
#include <strings.h>

void conn_settings_resolve(const xb_options *o, xb_conn_settings *cs)
{
	memset(cs, 0, sizeof *cs);
	cs->host = xb_opt_str(o, XB_OPT_HOST);
	cs->port = (unsigned)xb_opt_int(o, XB_OPT_PORT);
	cs->socket = xb_opt_str(o, XB_OPT_SOCKET);
	cs->user = xb_opt_str(o, XB_OPT_USER);
	cs->password = xb_opt_str(o, XB_OPT_PASSWORD);
	const char *proto = xb_opt_str(o, XB_OPT_PROTOCOL); /* tcp or socket, in any case */
	cs->protocol = !proto ? XB_CONN_PROTOCOL_DEFAULT
		       : !strcasecmp(proto, "tcp") ? XB_CONN_PROTOCOL_TCP : XB_CONN_PROTOCOL_SOCKET;
	cs->ssl = xb_opt_bool(o, XB_OPT_SSL);
	cs->ssl_key = xb_opt_str(o, XB_OPT_SSL_KEY);
	cs->ssl_cert = xb_opt_str(o, XB_OPT_SSL_CERT);
	cs->ssl_ca = xb_opt_str(o, XB_OPT_SSL_CA);
	cs->ssl_capath = xb_opt_str(o, XB_OPT_SSL_CAPATH);
	cs->ssl_cipher = xb_opt_str(o, XB_OPT_SSL_CIPHER);
	cs->ssl_verify_server_cert = xb_opt_bool(o, XB_OPT_SSL_VERIFY_SERVER_CERT);
	cs->ssl_crl = xb_opt_str(o, XB_OPT_SSL_CRL);
	cs->ssl_crlpath = xb_opt_str(o, XB_OPT_SSL_CRLPATH);
	cs->tls_version = xb_opt_str(o, XB_OPT_TLS_VERSION);
	/* A statement's answer never takes longer than the longest lock wait and a
	 * margin (--backup watches its BACKUP STAGE statements on their own). */
	cs->read_timeout = (unsigned)xb_opt_int(o, XB_OPT_LOCK_WAIT_TIMEOUT) + 60;
}
