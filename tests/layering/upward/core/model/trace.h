// A model header that reaches up: check_floors.cmake must fail on it.
#pragma once
#include "analysis/result.h"
