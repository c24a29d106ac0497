/*
 * iogate.c - read/write phase gate for the copy threads (see iogate.h).
 *
 * State under one mutex: the kind currently admitted, how many threads are
 * inside, whether the gate is closed to newcomers (someone waits for the
 * other kind), and how many wait for each kind. Entering the admitted kind
 * while open just counts in; entering the other kind when the gate is empty
 * flips it at once; otherwise the thread closes the gate and sleeps until
 * the last thread inside leaves, which flips it and wakes everyone.
 */
#include "iogate.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct xb_iogate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	enum xb_io_kind kind; /* the kind admitted now */
	int inside;           /* threads inside */
	bool closed;          /* newcomers of `kind` wait: the other kind is waiting */
	unsigned long flips;  /* kind switches so far */
};

xb_iogate *xb_iogate_new(void)
{
	xb_iogate *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->kind = XB_IO_READ;
	return g;
}

void xb_iogate_enter(xb_iogate *g, enum xb_io_kind kind)
{
	pthread_mutex_lock(&g->mu);
	for (;;) {
		if (g->inside == 0 && g->kind != kind) {
			g->kind = kind; /* empty: flip for us */
			g->closed = false;
			g->flips++;
			pthread_cond_broadcast(&g->cv);
		}
		if (g->kind == kind && !g->closed)
			break;
		if (g->kind != kind)
			g->closed = true; /* let those inside finish, then it is our turn */
		pthread_cond_wait(&g->cv, &g->mu);
	}
	g->inside++;
	pthread_mutex_unlock(&g->mu);
}

void xb_iogate_leave(xb_iogate *g, enum xb_io_kind kind)
{
	(void)kind;
	pthread_mutex_lock(&g->mu);
	if (--g->inside == 0 && g->closed) {
		g->kind = g->kind == XB_IO_READ ? XB_IO_WRITE : XB_IO_READ;
		g->closed = false;
		g->flips++;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
}

unsigned long xb_iogate_flips(xb_iogate *g)
{
	pthread_mutex_lock(&g->mu);
	unsigned long n = g->flips;
	pthread_mutex_unlock(&g->mu);
	return n;
}

void xb_iogate_free(xb_iogate *g)
{
	if (!g)
		return;
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	free(g);
}
