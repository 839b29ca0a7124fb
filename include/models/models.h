/* libmodels: the umbrella header. Include this, or only the headers you need. */
#ifndef MODELS_MODELS_H
#define MODELS_MODELS_H

#include <models/api.h>
#include <models/error.h>
#include <models/event.h>
#include <models/sites.h>
#include <models/record.h>
#include <models/params.h>
#include <models/machine.h>
#include <models/report.h>
#include <models/simt-clock.h>
#include <models/simt.h>
#include <models/engine.h>
#include <models/pipeline.h>
#include <models/trace.h>
#include <models/algo.h>
#include <models/experiment.h>
#include <models/sweep.h>
#include <models/annotate.h>
#include <models/warpio.h>

#endif
