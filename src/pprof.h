#ifndef EBPFSPY_PPROF_H
#define EBPFSPY_PPROF_H

#endif
