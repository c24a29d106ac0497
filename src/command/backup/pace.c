/*
 * pace.c - keep the copy from starving a busy server (--pace=auto).
 *
 * How fast the server's LSN advances (SHOW ENGINE INNODB STATUS) is a direct
 * measure of its write throughput. Before the datafile copy starts, that rate
 * is measured over one second (the baseline); a server whose LSN does not
 * move at all in 200 ms is idle and is not waited for. A busy
 * server's redo comes in bursts: over 300 ms the same sysbench load measured
 * anywhere from 1.2 to 6.9 MiB/s, and a baseline taken in a lull let a copy
 * that hurt the server look harmless. For the same reason a rate seen above
 * the baseline while copying raises it a quarter of the way (the copy cannot
 * make the server faster: the baseline was low).
 * While copying, every half second the rate since the previous sample is
 * compared with the baseline: when it has fallen under 65% of it, the copy is
 * slowed (the shared read limiter is set to 60% of its limit, never under
 * 8 MiB/s); when it is over 85%, the limit is raised by a quarter, and
 * dropped altogether once it is well above what the copy achieves. On a busy
 * server the copy starts at 64 MiB/s and speeds up from there (slow start),
 * so the server never takes the full blow of a copy at disk speed before the
 * pacer can react. An idle server (under 256 KiB/s of redo) is not paced, so
 * a quiet server is copied at full speed; it is still watched, and a server
 * that starts writing (or only looked idle: a probe once fell in a pause of a
 * busy server and its copy took 78% of the load's throughput) gets the slow
 * start then, with the rate it shows as the first baseline.
 *
 * A falling redo rate is not always the copy's doing: the load may simply
 * have ended or eased. A server that stops writing may also be stalled by
 * the copy (its log writes queued behind the copy's I/O): read as "the load
 * ended", that lifted the limit at the worst moment and one backup in three
 * took 40-45% of a write load's throughput. So a silent server first gets
 * the copy held at the minimum, and only one still silent after two seconds
 * of that lifts the limit. When four slow-downs in a row have not brought the
 * rate back, the current
 * rate becomes the new baseline (a backup once crawled at 8 MiB/s for minutes
 * after its write load ended). pace_step() is the decision alone, without
 * I/O, so it is unit-tested. A --throttle set by the user replaces pacing.
 *
 * A small copy is never paced, nor is the baseline measured for it: under
 * SMALL_COPY bytes of datafiles the copy at full speed is over in a few
 * seconds (at the 300 MB/s and more the disks of servers read), about as
 * long as the pacer needs to react at all (one second of baseline, samples
 * every half second, the slow start). Pacing such a copy only made it slow: a
 * 180 MiB server under a light write load took up to 25 s, held at 8 MiB/s by
 * the bursts of its redo rate, where mariabackup took 2 s.
 */
#include "backup_int.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/progress.h"
#include "common/throttle.h"
#include "platform/clock.h"

#define IDLE_RATE (256.0 * 1024)  /* bytes of redo per second below which the server counts as idle */
#define SLOW_DOWN 0.65            /* fraction of the baseline under which the copy slows down */
#define SPEED_UP 0.85             /* fraction of the baseline over which it speeds up again */
#define MIN_MIBS 8u               /* never slower than this */
#define START_MIBS 64u            /* first limit on a busy server */
#define QUIET_TICKS 4             /* silent samples at the minimum before the load counts as ended */
#define REBASE_TICKS 4            /* slow-downs in a row without effect before the reference is measured anew */
#define BASELINE_US 1000000       /* how long the rate before the copy is measured */
#define RAISE 0.25                /* share of the way a higher rate moves the baseline */
#define IDLE_PROBE_US 20000       /* how often the idle probe looks at the LSN */
#define IDLE_PROBES 10            /* no redo written in this many probes: idle, the copy starts at once */
#define SMALL_COPY ((uint64_t)1 << 30) /* datafile bytes under which a copy is never paced */

static uint64_t copied_bytes(backup_ctx *c)
{
	return c->progress ? atomic_load((_Atomic uint64_t *)xb_progress_counter(c->progress)) : 0;
}

void pace_start(backup_ctx *c, pacer *p, xb_throttle *limiter, uint64_t total)
{
	memset(p, 0, sizeof *p);
	p->limiter = limiter;
	if (!limiter)
		return;
	if (total < SMALL_COPY) {
		xb_info("Pacing: not needed for %.0f MiB of datafiles (a copy at full speed is over in seconds)",
			(double)total / 1048576.0);
		p->limiter = NULL;
		return;
	}
	uint64_t l0, l1;
	xb_error ignore;
	double t0 = xb_clock_sec();
	if (xb_server_lsn(&c->srv, &l0, &ignore))
		return;
	/* A server that writes no redo at all for a moment is idle: no need to
	 * hold the copy back for the whole baseline to find that out. */
	l1 = l0;
	for (int i = 0; i < IDLE_PROBES && l1 == l0; i++) {
		usleep(IDLE_PROBE_US);
		if (xb_server_lsn(&c->srv, &l1, &ignore) || l1 < l0)
			return;
	}
	if (l1 != l0) {
		double left = BASELINE_US / 1e6 - (xb_clock_sec() - t0);
		if (left > 0)
			usleep((useconds_t)(left * 1e6));
		if (xb_server_lsn(&c->srv, &l1, &ignore) || l1 < l0)
			return;
	}
	double t1 = xb_clock_sec();
	p->watch = true;
	p->baseline = (double)(l1 - l0) / (t1 - t0);
	p->active = p->baseline >= IDLE_RATE;
	if (p->active) {
		xb_throttle_set_rate(limiter, START_MIBS);
		xb_info("Pacing: the server writes %.1f MiB/s of redo; the copy slows down if that falls under %.0f%%",
			p->baseline / 1048576.0, SLOW_DOWN * 100);
	}
	p->prev_t = t1;
	p->prev_lsn = l1;
	p->prev_bytes = copied_bytes(c);
	p->last_log = 0;
}

/* What the limit should become after a sample; see pace.c's header. */
unsigned pace_step(pacer *p, double t, uint64_t lsn, uint64_t bytes, unsigned cap, pace_why *why)
{
	*why = PACE_SAME;
	if (lsn < p->prev_lsn || t - p->prev_t < 0.5)
		return cap;
	double rate = (double)(lsn - p->prev_lsn) / (t - p->prev_t);
	double copy = (double)(bytes - p->prev_bytes) / (t - p->prev_t) / 1048576.0; /* MiB/s */
	p->prev_t = t;
	p->prev_lsn = lsn;
	p->prev_bytes = bytes;
	if (copy > p->best_copy)
		p->best_copy = copy;
	if (!p->active) {
		if (rate < IDLE_RATE)
			return cap;
		/* idle until now: the server has started writing, with the copy at
		 * full speed; what it writes now is the first, low, baseline */
		p->active = true;
		p->baseline = rate;
		p->ratio = 1.0;
		p->slow_ticks = 0;
		*why = PACE_WOKE;
		return START_MIBS;
	}
	if (rate > p->baseline)
		p->baseline += (rate - p->baseline) * RAISE;
	p->ratio = rate / p->baseline;
	unsigned next = cap;
	if (rate < IDLE_RATE) {
		/* The server has (almost) stopped writing: either its work is done, or
		 * the copy stalls it. Hold the copy at the minimum until it writes
		 * again or stays silent long enough to be done, not starved. */
		p->slow_ticks = 0;
		if (++p->quiet_ticks > QUIET_TICKS) {
			*why = cap ? PACE_IDLE : PACE_SAME;
			return 0;
		}
		*why = cap == MIN_MIBS ? PACE_SAME : PACE_STALL;
		return MIN_MIBS;
	}
	p->quiet_ticks = 0;
	if (p->ratio < SLOW_DOWN) {
		if (++p->slow_ticks > REBASE_TICKS) {
			/* Slower and slower copying has not brought the server's rate back:
			 * its load changed, the copy is not what holds it down. Measure
			 * against what it does now. */
			p->baseline = rate;
			p->ratio = 1.0;
			p->slow_ticks = 0;
			*why = PACE_REBASE;
			return cap ? cap : MIN_MIBS;
		}
		double base = cap ? (double)cap : copy;
		if (cap && copy < base)
			base = copy; /* the limit was not the bottleneck: start from what the copy did */
		next = (unsigned)(base * 0.6);
		if (next < MIN_MIBS)
			next = MIN_MIBS;
	} else {
		p->slow_ticks = 0;
		if (p->ratio > SPEED_UP && cap) {
			next = (unsigned)((double)cap * 1.25) + 1;
			if ((double)next > 2.0 * p->best_copy && p->best_copy > START_MIBS)
				next = 0;
		}
	}
	if (next != cap)
		*why = next == 0 ? PACE_FASTER : (cap == 0 || next < cap) ? PACE_SLOWER : PACE_FASTER;
	return next;
}

void pace_tick(backup_ctx *c, pacer *p, uint64_t lsn)
{
	if (!p->watch)
		return;
	double t = xb_clock_sec();
	unsigned cap = xb_throttle_rate(p->limiter);
	pace_why why;
	unsigned next = pace_step(p, t, lsn, copied_bytes(c), cap, &why);
	if (why == PACE_WOKE) {
		xb_throttle_set_rate(p->limiter, next);
		xb_info("Pacing: the server has started writing %.1f MiB/s of redo: datafile reads limited to %u MiB/s, "
			"raised while its rate holds", p->baseline / 1048576.0, next);
		p->last_log = t;
		return;
	}
	if (why == PACE_STALL) {
		xb_throttle_set_rate(p->limiter, next);
		xb_info("Pacing: the server's redo has almost stopped (%.0f KiB/s): datafile reads limited to %u MiB/s "
			"until it writes again or has been quiet for %.0f s",
			p->ratio * p->baseline / 1024.0, next, QUIET_TICKS * 0.5);
		p->last_log = t;
		return;
	}
	if (why == PACE_REBASE)
		xb_info("Pacing: the server's redo rate stayed low while the copy slowed down: its load changed; "
			"%.1f MiB/s is the new reference", p->baseline / 1048576.0);
	if (next == cap)
		return;
	xb_throttle_set_rate(p->limiter, next);
	if (why == PACE_IDLE) {
		xb_info("Pacing: the server has stopped writing: no limit on datafile reads");
		p->last_log = t;
	} else if (t - p->last_log >= 10.0 || (cap == 0) != (next == 0)) {
		if (next)
			xb_info("Pacing: the server's redo rate is at %.0f%% of its rate before the copy: "
				"datafile reads limited to %u MiB/s", p->ratio * 100, next);
		else
			xb_info("Pacing: the server's redo rate is back to %.0f%%: no limit on datafile reads",
				p->ratio * 100);
		p->last_log = t;
	}
}
