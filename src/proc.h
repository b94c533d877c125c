#ifndef EBPFSPY_PROC_H
#define EBPFSPY_PROC_H

#endif
