#ifndef EBPFSPY_PIDS_H
#define EBPFSPY_PIDS_H

#endif
