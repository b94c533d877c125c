#include "symcache.h"
