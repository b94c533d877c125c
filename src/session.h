#ifndef EBPFSPY_SESSION_H
#define EBPFSPY_SESSION_H

#endif
