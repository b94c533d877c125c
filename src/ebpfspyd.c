#include "ebpfspyd.h"

int
ebpfspyd_main(int argc, char **argv)
{
	return 0;
}
