#include "proc.h"
