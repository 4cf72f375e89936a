// SPDX-License-Identifier: MIT
// The real-trace conformance suite's discovery: every trace under ../shared/data
// (and tests/data/real) grouped into the cases the suite runs, by content, so a
// trace added there is checked without a code change.
#pragma once

#include <string>
#include <vector>

namespace realtraces {

struct PairCase {
    std::string name;   // path of the device trace relative to its root
    std::string device; // Kineto trace
    std::string host;   // its ET when the folder holds one of the same stem, else empty
};

struct Corpus {
    std::vector<PairCase> pairs;            // every Kineto trace, with its ET where there is one
    std::vector<std::string> hostOnly;      // ETs with no Kineto trace of their stem
    std::vector<std::string> jobs;          // folders with two or more Kineto traces of distinct ranks
    std::vector<std::string> hangFolders;   // folders of flight recorder dumps
    std::vector<std::string> htaGoldens;    // cpa_hta_f4d0062.json files beside a device trace
};

// Walks the roots (missing ones are skipped). Reference-tool outputs (a folder named
// "output", Syncscope's own outputs) are not inputs.
Corpus discoverCorpus(const std::vector<std::string> &roots);

// "rank6.kineto.json.gz" and "rank6.et.json.gz" -> "rank6"; "device.0.json" -> "0".
std::string traceStem(const std::string &fileName);

} // namespace realtraces
