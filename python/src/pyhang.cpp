// SPDX-License-Identifier: MIT
#include "pyhang.h"

#include "pyrequest.h"

#include <pybind11/stl.h>

#include <algorithm>

namespace syncscope::py {

namespace pyb = pybind11;

namespace {

std::string ranksText(const std::vector<int64_t> &ranks)
{
    std::string t;
    for (int64_t r : ranks)
        t += (t.empty() ? "" : ",") + std::to_string(r);
    return t;
}

} // namespace

std::shared_ptr<PyHang> PyHang::read(const std::string &dir, pyb::object progress)
{
    requireNoNul(dir, "the folder");
    ProgressSink sink(std::move(progress));
    auto h = std::make_shared<PyHang>();
    h->m_folder = std::make_shared<HangFolder>();
    std::string error;
    bool ok = false;
    runInterruptible(sink, [&] {
        HangFolderOptions options;
        options.frames = false; // PyHang::entries reads a rank again for them
        options.cancel = sink.cancelFlag();
        options.progress = [&sink](size_t done, size_t total) { sink.report("read", total ? double(done) / double(total) : 1.0); };
        ok = readHangFolder(dir, *h->m_folder, error, options);
        if (ok && !h->m_folder->dumps.empty()) {
            sink.report("analysis", 0);
            h->m_analysis = analyzeHang(h->m_folder->dumps, h->m_folder->missing, h->m_folder->worldSize);
        }
    });
    sink.rethrowIfFailed();
    if (!ok)
        throw InputError(error);
    if (h->m_folder->dumps.empty())
        throw InputError(dir + ": no readable flight recorder dump (" + std::to_string(h->m_folder->files.size()) +
                         " files looked at)");
    return h;
}

std::string PyHang::summary() const { return hangSummaryText(m_analysis); }

std::string PyHang::analysisJson() const { return hangAnalysisJson(m_analysis).dump(); }

pyb::dict PyHang::suspects() const
{
    Columns c;
    auto &root = c.boolean("root");
    auto &pg = c.text("pg_id");
    auto &desc = c.text("pg_desc");
    auto &op = c.text("op");
    auto &sizes = c.text("input_sizes");
    auto &dtype = c.text("dtype");
    auto &p2p = c.boolean("p2p");
    auto &seq = c.i64("collective_seq_id");
    auto &p2pSeq = c.i64("p2p_seq_id");
    auto &kind = c.text("kind");
    auto &missing = c.text("missing_ranks");
    auto &mismatched = c.text("mismatched_ranks");
    auto &waiting = c.text("waiting_ranks");
    auto &explains = c.text("explains");
    for (const HangSuspect &s : m_analysis.suspects) {
        root.push_back(s.root);
        pg.push_back(s.pgName);
        desc.push_back(s.pgDesc);
        op.push_back(s.op);
        sizes.push_back(hangSizesText(s.inputSizes));
        dtype.push_back(hangDtypeText(s.dtype));
        p2p.push_back(s.p2p);
        seq.push_back(s.collectiveSeqId);
        p2pSeq.push_back(s.p2pSeqId);
        kind.push_back(s.kind);
        missing.push_back(ranksText(s.missingRanks));
        mismatched.push_back(ranksText(s.mismatchedRanks));
        waiting.push_back(ranksText(s.waitingRanks));
        std::string e;
        for (size_t i : s.explains)
            e += (e.empty() ? "" : ",") + m_analysis.suspects[i].pgName;
        explains.push_back(e);
    }
    return c.toPython();
}

pyb::dict PyHang::groups() const
{
    Columns c;
    auto &pg = c.text("pg_id");
    auto &desc = c.text("pg_desc");
    auto &rank = c.i64("rank");
    auto &state = c.text("state");
    auto &dump = c.text("dump");
    auto &enq = c.i64("last_enqueued");
    auto &started = c.i64("last_started");
    auto &completed = c.i64("last_completed");
    for (const HangGroupStatus &g : m_analysis.groups)
        for (const HangMemberStatus &m : g.members) {
            pg.push_back(g.pgName);
            desc.push_back(g.pgDesc);
            rank.push_back(m.rank);
            state.push_back(m.state);
            dump.push_back(m.dump);
            enq.push_back(m.lastEnqueued);
            started.push_back(m.lastStarted);
            completed.push_back(m.lastCompleted);
        }
    return c.toPython();
}

pyb::dict PyHang::entries(int64_t rank) const
{
    const auto &dumps = m_folder->dumps;
    const auto it = std::find_if(dumps.begin(), dumps.end(), [rank](const FrDump &d) { return d.rank == rank; });
    if (it == dumps.end())
        throw UsageError("rank " + std::to_string(rank) + " has no dump in " + m_folder->dir);
    // The folder was read without stacks: this rank's dump again, with them.
    FrDump full;
    const FrDump &d = rereadWithFrames(*it, full) ? full : *it;
    Columns c;
    auto &record = c.i64("record_id");
    auto &pg = c.text("pg_id");
    auto &seq = c.i64("collective_seq_id");
    auto &p2pSeq = c.i64("p2p_seq_id");
    auto &op = c.text("op");
    auto &sizes = c.text("input_sizes");
    auto &dtype = c.text("dtype");
    auto &state = c.text("state");
    auto &created = c.i64("time_created_ns");
    auto &p2p = c.boolean("is_p2p");
    auto &frames = c.text("frames");
    for (const FrEntry &e : d.entries) {
        record.push_back(e.recordId);
        pg.push_back(e.pgName);
        seq.push_back(e.collectiveSeqId);
        p2pSeq.push_back(e.p2pSeqId);
        op.push_back(e.profilingName);
        sizes.push_back(hangSizesText(e.inputSizes));
        std::string dt;
        for (const auto &x : e.inputDtypes)
            dt += (dt.empty() ? "" : ",") + x;
        dtype.push_back(hangDtypeText(dt));
        state.push_back(e.state);
        created.push_back(e.timeCreatedNs);
        p2p.push_back(e.isP2p);
        std::string f;
        for (const auto &x : e.frames)
            f += (f.empty() ? "" : "\n") + x;
        frames.push_back(f);
    }
    return c.toPython();
}

pyb::dict PyHang::inputs() const
{
    pyb::dict d;
    pyb::list files;
    for (const HangFolderFile &f : m_folder->read) {
        pyb::dict x;
        x["file"] = f.file;
        x["rank"] = f.rank;
        x["format"] = f.json ? "json" : "pickle";
        x["version"] = f.version;
        x["entries"] = f.entries;
        files.append(x);
    }
    pyb::list refused;
    for (const HangFolderDiag &r : m_folder->refused) {
        pyb::dict x;
        x["file"] = r.file;
        x["reason"] = pyText(r.message);
        refused.append(x);
    }
    d["dir"] = m_folder->dir;
    d["files"] = files;
    d["missing_dumps"] = pyb::cast(m_folder->missing);
    d["world_size"] = m_folder->worldSize;
    d["refused"] = refused;
    pyb::list warnings;
    for (const auto &w : m_analysis.warnings)
        warnings.append(pyText(w));
    d["warnings"] = warnings;
    return d;
}

} // namespace syncscope::py
