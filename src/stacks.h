#ifndef EBPFSPY_STACKS_H
#define EBPFSPY_STACKS_H

#endif
