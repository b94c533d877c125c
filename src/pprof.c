#include "pprof.h"
