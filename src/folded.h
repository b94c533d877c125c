#ifndef EBPFSPY_FOLDED_H
#define EBPFSPY_FOLDED_H

#endif
