// core/json.h is the old flat layout: no library holds it any more.
#include "core/json.h"
