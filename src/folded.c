#include "folded.h"
