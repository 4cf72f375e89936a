// SPDX-License-Identifier: MIT
// _syncscope: the C++ half of the `syncscope` Python package (docs/python.md).
// Every entry point runs the pipeline the CLI and the GUI run; the tables come
// back as dicts of columns, which syncscope/__init__.py makes DataFrames.
#include "pydiff.h"
#include "pyhang.h"
#include "pyjob.h"
#include "pytrace.h"

#include <pybind11/stl.h>

namespace pyb = pybind11;
using namespace syncscope::py;

PYBIND11_MODULE(_syncscope, m)
{
    m.doc() = "Syncscope's C++ pipeline (use the `syncscope` package, not this module)";
    m.attr("__version__") = SYNCSCOPE_VERSION;
    pyb::register_exception<UsageError>(m, "UsageError", PyExc_ValueError);
    pyb::register_exception<InputError>(m, "InputError", PyExc_ValueError);
    pyb::register_exception<ExportError>(m, "OutputError", PyExc_OSError);
    pyb::register_exception<AnalysisError>(m, "AnalysisError", PyExc_RuntimeError);

    pyb::class_<PyTrace, std::shared_ptr<PyTrace>>(m, "Trace")
        .def_static("load", &PyTrace::load, pyb::arg("argv"), pyb::arg("progress") = pyb::none())
        .def_property_readonly("argv", &PyTrace::argv)
        .def_property_readonly("exit_code", &PyTrace::exitCode)
        .def("info", &PyTrace::info)
        .def("events", &PyTrace::events)
        .def("links", &PyTrace::links)
        .def("sync_edges", &PyTrace::syncEdges)
        .def("critical_path", &PyTrace::criticalPath, pyb::arg("step") = pyb::none())
        .def("hta_critical_path", &PyTrace::htaCriticalPath)
        .def("steps", &PyTrace::steps)
        .def("report_json", &PyTrace::reportJson)
        .def("what_if_json", &PyTrace::whatIfJson)
        .def("export", &PyTrace::exportFile, pyb::arg("kind"), pyb::arg("path"), pyb::arg("all_events") = false)
        .def("to_sqlite", &PyTrace::toSqlite, pyb::arg("path"))
        .def("breakdown_json", &PyTrace::breakdownJson);

    pyb::class_<PyJob, std::shared_ptr<PyJob>>(m, "Job")
        .def_static("load", &PyJob::load, pyb::arg("argv"), pyb::arg("progress") = pyb::none())
        .def_property_readonly("exit_code", &PyJob::exitCode)
        .def_property_readonly("seconds", &PyJob::seconds)
        .def("ranks", &PyJob::ranks)
        .def("collectives", &PyJob::collectives)
        .def("arrivals", &PyJob::arrivals)
        .def("root_causes", &PyJob::rootCauses)
        .def("delays", &PyJob::delays)
        .def("stragglers", &PyJob::stragglers)
        .def("critical_path", &PyJob::criticalPath)
        .def("report_json", &PyJob::reportJson)
        .def("straggler_whatif_json", &PyJob::stragglerWhatIfJson);

    pyb::class_<PyDiff, std::shared_ptr<PyDiff>>(m, "Diff")
        .def_static("run", &PyDiff::run, pyb::arg("argv"), pyb::arg("progress") = pyb::none())
        .def_property_readonly("exit_code", &PyDiff::exitCode)
        .def("steps", &PyDiff::steps)
        .def("ops", &PyDiff::ops)
        .def("gpu", &PyDiff::gpu, pyb::arg("memcpys"), pyb::arg("by_op"))
        .def("sync_waits", &PyDiff::syncWaits, pyb::arg("by_waiter"))
        .def("bound_by", &PyDiff::boundBy)
        .def("top_changes", &PyDiff::topChanges)
        .def("report_json", &PyDiff::reportJson);

    pyb::class_<PyHang, std::shared_ptr<PyHang>>(m, "Hang")
        .def_static("read", &PyHang::read, pyb::arg("dir"), pyb::arg("progress") = pyb::none())
        .def("summary", &PyHang::summary)
        .def("analysis_json", &PyHang::analysisJson)
        .def("suspects", &PyHang::suspects)
        .def("groups", &PyHang::groups)
        .def("entries", &PyHang::entries, pyb::arg("rank"))
        .def("inputs", &PyHang::inputs);
}
