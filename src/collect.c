#include "collect.h"
