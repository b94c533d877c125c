#ifndef EBPFSPY_WATCH_H
#define EBPFSPY_WATCH_H

#endif
