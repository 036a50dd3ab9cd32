#pragma once
// A widget that uses only what widgets/ may use: its models and core's report types.
#include "core/base/json.h"
#include "core/lessons/lessonreport.h"
#include "models/objecttablemodel.h"
#include "widgets/plaintext.h"
