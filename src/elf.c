#include "elf.h"
