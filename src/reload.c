#include "reload.h"
