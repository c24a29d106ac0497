/*
 * iogate.h - keeps the copy threads' reads and writes in separate phases.
 *
 * When a backup reads its source and writes its target on the same device,
 * interleaving the two finely costs a lot of throughput on many devices
 * (virtual disks and SSDs alike turn a mix of small reads and writes into
 * far less than either alone). The copy threads therefore move data in big
 * batches and pass each batch read and each batch write through one gate:
 * any number of threads may be inside it at once, but all of the same kind.
 * A thread that wants the other kind closes the gate to newcomers; when the
 * threads inside have left, the gate flips and lets in everyone waiting for
 * the other kind. So the device sees long runs of reads and long runs of
 * writes, and neither kind can starve the other.
 */
#ifndef XB_IOGATE_H
#define XB_IOGATE_H

typedef struct xb_iogate xb_iogate;

enum xb_io_kind { XB_IO_READ = 0, XB_IO_WRITE = 1 };

/* A new gate, open to either kind; NULL when out of memory. */
xb_iogate *xb_iogate_new(void);
/* Wait until this thread may do I/O of `kind`, then enter. */
void xb_iogate_enter(xb_iogate *g, enum xb_io_kind kind);
/* Leave after the I/O entered for is done. */
void xb_iogate_leave(xb_iogate *g, enum xb_io_kind kind);
/* Number of times the gate switched kind (for the log and tests). */
unsigned long xb_iogate_flips(xb_iogate *g);
/* Free the gate (no thread may be inside). NULL is fine. */
void xb_iogate_free(xb_iogate *g);

#endif
