#ifndef EBPFSPY_COLLECT_H
#define EBPFSPY_COLLECT_H

#endif
