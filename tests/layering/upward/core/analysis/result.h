// A result type on the analysis floor.
#pragma once
#include "model/trace.h"
