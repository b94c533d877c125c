#include "symtab.h"
