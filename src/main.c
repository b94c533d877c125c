#include "ebpfspyd.h"

int
main(int argc, char **argv)
{
	return ebpfspyd_main(argc, argv);
}
