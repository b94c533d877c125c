#ifndef EBPFSPY_RELOAD_H
#define EBPFSPY_RELOAD_H

#endif
