#include "CFerryEvent.h"
