// The public API of zwang.
#pragma once

#include "zwang/batch.hpp"
#include "zwang/builder.hpp"
#include "zwang/derivatives.hpp"
#include "zwang/examples.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"
