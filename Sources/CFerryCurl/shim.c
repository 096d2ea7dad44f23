#include "CFerryCurl.h"
