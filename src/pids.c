#include "pids.h"
