#ifndef EBPFSPY_ELF_H
#define EBPFSPY_ELF_H

#endif
