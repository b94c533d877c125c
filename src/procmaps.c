#include "procmaps.h"
