#include "sink_file.h"
