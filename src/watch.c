#include "watch.h"
