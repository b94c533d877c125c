#include "stacks.h"
