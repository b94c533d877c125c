#include "kallsyms.h"
