#pragma once
// A widget that uses the API client: the mistake the include check exists for.
#include "core/lessons/lessonreport.h"
#include "kube/transport.h"
