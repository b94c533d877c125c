#ifndef EBPFSPY_EVENTS_H
#define EBPFSPY_EVENTS_H

#endif
