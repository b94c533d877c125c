#ifndef EBPFSPY_EBPFSPYD_H
#define EBPFSPY_EBPFSPYD_H

int	ebpfspyd_main(int, char **);

#endif
