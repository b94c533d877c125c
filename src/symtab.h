#ifndef EBPFSPY_SYMTAB_H
#define EBPFSPY_SYMTAB_H

#endif
