// SPDX-License-Identifier: MIT
// A folder of flight recorder dumps, read for the hang analysis (issue 29): every
// regular file under it that looks like a dump is read on every core, one dump kept
// per rank (the rank from the dump, else the last number of its file name), and what
// was refused is reported as data. Batch (--flight-recorder) and the inspector's hang
// view read folders through this one function. Display-free.
#pragma once

#include "hang/flightrecorder.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace syncscope {

struct HangFolderDiag {
    std::string severity;            // "info", "warning", "error"
    std::string code;                // "hang.dump_unreadable", "hang.duplicate_rank", ...
    std::string message;             // names the file
    std::string file;
};

struct HangFolderFile {
    std::string file;
    int64_t rank = -1;
    bool json = false;
    std::string version;
    size_t entries = 0;
    std::string writer, commLib;         // FrDump's
};


struct HangFolder {
    std::string dir;
    std::vector<std::string> files;      // every regular file looked at, sorted
    std::vector<FrDump> dumps;           // one per rank, in path order
    std::vector<HangFolderFile> read;    // the same, for the report
    std::vector<int64_t> ranks;          // ranks with a dump, ascending
    std::vector<int64_t> missing;        // members (or ranks named by a refused file) without a dump
    int64_t worldSize = 0;
    std::vector<HangFolderDiag> refused; // files skipped or refused (also in diags)
    std::vector<HangFolderDiag> diags;   // everything worth saying, in order
    double readSeconds = 0;
    size_t readPeakBytes = 0;            // the most the dumps being read at once held (counted)
    size_t readAlone = 0;                // dumps read again alone: alongside others they passed the budget
    bool cancelled = false;
};

// The formats read, most common first: "16 x pickle 2.9, pytorch, NCCL 2.27.3".
std::string hangFormatsText(const HangFolder &folder);

struct HangFolderOptions {
    // Called from the reading threads (serialised) after each file: done, total.
    std::function<void(size_t, size_t)> progress;
    const std::atomic<bool> *cancel = nullptr;
    unsigned threads = 0;                // 0: every core
    bool frames = true;                  // FrReadOptions::frames (false: read a rank again for them)
    size_t memoryBudgetBytes = kFrFolderMemoryBytes; // what the dumps being read at once may hold
};

// False when `dir` is not a readable folder (error says why); true otherwise, even when
// no dump could be read (folder.dumps empty, an "error" diagnostic hang.no_dump).
bool readHangFolder(const std::string &dir, HangFolder &folder, std::string &error,
                    const HangFolderOptions &options = {});

// Whether the folder holds at least one file that starts like a flight recorder dump
// (a pickle, or a JSON object whose first keys are a dump's). Reads a few bytes per file.
bool folderHasFlightRecorderDumps(const std::string &dir);

// The last run of digits in a file name (PyTorch names dumps <prefix><rank>).
std::optional<int64_t> hangRankFromFileName(const std::string &name);

} // namespace syncscope
