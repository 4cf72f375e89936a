// SPDX-License-Identifier: MIT
#include "breakdowntables.h"

#include "panels/criticalpathmodel.h"
#include "timeline/timeformat.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

namespace {

// HTA's numbers are µs; the tables show them as the other panels show times.
BreakdownCell timeCell(double us)
{
    if (!std::isfinite(us))
        return {QStringLiteral("\u2014"), QVariant(), QObject::tr("undefined in HTA (0/0)")};
    return {QString::fromStdString(formatDuration(us * 1000.0)), us, {}};
}

BreakdownCell pctCell(double pct, int decimals = 2)
{
    if (!std::isfinite(pct))
        return {QStringLiteral("\u2014"), QVariant(), QObject::tr("undefined in HTA (0/0)")};
    return {QStringLiteral("%1 %").arg(pct, 0, 'f', decimals), pct, {}};
}

BreakdownCell numCell(double v, int decimals)
{
    if (!std::isfinite(v))
        return {QStringLiteral("\u2014"), QVariant(), QObject::tr("undefined (one value)")};
    return {QLocale().toString(v, 'f', decimals), v, {}};
}

BreakdownCell countCell(size_t n) { return {QLocale().toString(qulonglong(n)), qulonglong(n), {}}; }

BreakdownCell streamCell(int64_t stream) { return {QString::number(stream), qlonglong(stream), {}}; }

BreakdownCell textCell(const QString &s, const QString &tooltip = {}) { return {s, s, tooltip}; }

using Rows = std::vector<std::vector<BreakdownCell>>;

Rows temporalRows(const BreakdownSet &set)
{
    const HtaTemporalBreakdown &t = set.hta.temporal;
    Rows rows;
    if (t.valid) {
        rows.push_back({textCell(QObject::tr("Idle (HTA)")), timeCell(t.idle_time_us), pctCell(t.idle_time_pct)});
        rows.push_back({textCell(QObject::tr("Compute (HTA)"),
                                 QObject::tr("HTA's compute time: every computation kernel, with the communication "
                                             "that runs under it (the bar's \"Compute only\" leaves that out)")),
                        timeCell(t.compute_time_us), pctCell(t.compute_time_pct)});
        rows.push_back({textCell(QObject::tr("Non-compute (HTA)")), timeCell(t.non_compute_time_us),
                        pctCell(t.non_compute_time_pct)});
        rows.push_back({textCell(QObject::tr("Kernel time (GPU span)")), timeCell(t.kernel_time_us), pctCell(100)});
    }
    const double span = t.valid ? t.kernel_time_us : 0;
    auto share = [&](double us) { return span > 0 ? pctCell(100.0 * us / span) : pctCell(std::nan("")); };
    rows.push_back({textCell(QObject::tr("Communication"), QObject::tr("Union of the communication kernels per GPU")),
                    timeCell(set.comm.comm_us), share(set.comm.comm_us)});
    rows.push_back({textCell(QObject::tr("Exposed communication"),
                             QObject::tr("Communication not under a computation kernel of the same GPU (TraceLens)")),
                    timeCell(set.comm.exposed_us), share(set.comm.exposed_us)});
    rows.push_back({textCell(QObject::tr("Comm/comp overlap"),
                             QObject::tr("Share of the communication time under computation (HTA)")),
                    textCell(QString()), pctCell(set.hta.comm_comp_overlap_pct)});
    return rows;
}

// How many GPU ops a top-kernels row stands for: HTA's rows carry sum and mean only.
size_t kernelCount(const HtaKernelRow &r)
{
    return r.mean_us > 0 ? size_t(std::llround(r.sum_us / r.mean_us)) : 0;
}

Rows launchRows(const BreakdownSet &set)
{
    const KernelLaunchStats &l = set.launch;
    const LaunchDurations d = launchDurations(l);
    const QString runtime = QString::fromStdString(formatDuration(l.runtime_cutoff_us * 1000));
    const QString late = QString::fromStdString(formatDuration(l.launch_delay_cutoff_us * 1000));
    size_t gpuOps = 0;
    for (const HtaKernelRow &r : set.hta.kernels_by_kernel)
        gpuOps += kernelCount(r);
    // HTA's statistics pair only cudaLaunchKernel(ExC) and async copy / memset calls with their
    // GPU rows: a HIP, driver or graph-replay trace has GPU work and "0 launches" (issue 41).
    return {
        {textCell(QObject::tr("Launches, as HTA counts them"),
                  QObject::tr("CPU calls cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync and cudaMemsetAsync "
                              "paired with their GPU rows (HTA's cuda_kernel_launch_stats); HIP, driver and graph "
                              "launches are not counted, and neither are the statistics below")),
         countCell(l.rows.size())},
        {textCell(QObject::tr("GPU ops (kernels, copies, memsets), any launch API")), countCell(gpuOps)},
        {textCell(QObject::tr("CPU launch duration, median")), timeCell(d.cpuMedian)},
        {textCell(QObject::tr("CPU launch duration, mean")), timeCell(d.cpuMean)},
        {textCell(QObject::tr("GPU duration, median")), timeCell(d.gpuMedian)},
        {textCell(QObject::tr("GPU duration, mean")), timeCell(d.gpuMean)},
        {textCell(QObject::tr("Launch delay, median")), timeCell(d.delayMedian)},
        {textCell(QObject::tr("Launch delay, mean")), timeCell(d.delayMean)},
        {textCell(QObject::tr("Short kernels (launch \u2264 %1, GPU < launch)").arg(runtime)),
         countCell(l.short_kernels.size())},
        {textCell(QObject::tr("Runtime outliers (launch > %1)").arg(runtime)), countCell(l.runtime_outliers.size())},
        {textCell(QObject::tr("Launch-delay outliers (delay > %1)").arg(late)),
         countCell(l.launch_delay_outliers.size())},
    };
}

} // namespace

BreakdownSplit breakdownSplit(const BreakdownSet &set)
{
    BreakdownSplit s;
    const HtaTemporalBreakdown &t = set.hta.temporal;
    if (!t.valid || !(t.kernel_time_us > 0))
        return s;
    s.valid = true;
    s.spanUs = t.kernel_time_us;
    const double nonCompute = std::max(0.0, t.non_compute_time_us);
    const double compute = std::max(0.0, t.compute_time_us);
    // Per-GPU exposed communication is never compute; clamped to HTA's rank-wide non-compute
    // time (a kernel on another GPU of the trace can cover it there). The hidden part is compute.
    const double exposed = std::clamp(set.comm.exposed_us, 0.0, nonCompute);
    const double hidden = std::clamp(set.comm.comm_us - set.comm.exposed_us, 0.0, compute);
    s.us[BreakdownSplit::Compute] = compute - hidden;
    s.us[BreakdownSplit::OverlappedComm] = hidden;
    s.us[BreakdownSplit::ExposedComm] = exposed;
    s.us[BreakdownSplit::MemoryOther] = nonCompute - exposed;
    s.us[BreakdownSplit::Idle] = std::max(0.0, t.idle_time_us);
    return s;
}

QString breakdownPartName(int part)
{
    switch (part) {
    // "Compute only": the split's compute leaves out the part under communication, so it
    // is not HTA's "Compute" of the Temporal table beside it (issue 41).
    case BreakdownSplit::Compute: return QObject::tr("Compute only");
    case BreakdownSplit::OverlappedComm: return QObject::tr("Comm under compute");
    case BreakdownSplit::ExposedComm: return QObject::tr("Exposed comm");
    case BreakdownSplit::MemoryOther: return QObject::tr("Memcpy/memset/other");
    case BreakdownSplit::Idle: return QObject::tr("Idle");
    default: return {};
    }
}

BreakdownTableModel::BreakdownTableModel(QStringList headers, QObject *parent)
    : QAbstractTableModel(parent)
    , m_headers(std::move(headers))
{
}

void BreakdownTableModel::setRows(std::vector<std::vector<BreakdownCell>> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int BreakdownTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int BreakdownTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_headers.size());
}

QVariant BreakdownTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_rows.size() ||
        size_t(index.column()) >= m_rows[size_t(index.row())].size())
        return {};
    const BreakdownCell &c = cell(index.row(), index.column());
    switch (role) {
    case Qt::DisplayRole: return c.text;
    case Qt::ToolTipRole: return c.tooltip.isEmpty() ? QVariant() : QVariant(c.tooltip);
    case SortRole: return c.sort;
    case Qt::TextAlignmentRole:
        if (c.sort.typeId() != QMetaType::QString && (c.sort.isValid() || c.text.startsWith(QChar(0x2014))))
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default: return {};
    }
}

QVariant BreakdownTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole && section >= 0 && section < m_headers.size())
        return m_headers[section];
    return {};
}

QString breakdownTableTitle(int table)
{
    switch (table) {
    case TemporalTable: return QObject::tr("Temporal");
    case IdleTable: return QObject::tr("Idle time");
    case KernelTypeTable: return QObject::tr("Kernel types");
    case TopKernelsTable: return QObject::tr("Top kernels");
    case LaunchTable: return QObject::tr("Launches");
    case QueueTable: return QObject::tr("Queue length");
    default: return {};
    }
}

BreakdownTableModel *makeBreakdownTable(int table, QObject *parent)
{
    QStringList h;
    switch (table) {
    case TemporalTable: h = {QObject::tr("Part"), QObject::tr("Time"), QObject::tr("% of span")}; break;
    case IdleTable:
        h = {QObject::tr("Stream"), QObject::tr("Cause"), QObject::tr("Idle time"), QObject::tr("Share of stream idle")};
        break;
    case KernelTypeTable: h = {QObject::tr("Kernel type"), QObject::tr("Time"), QObject::tr("%")}; break;
    case TopKernelsTable:
        h = {QObject::tr("Type"), QObject::tr("Kernel"), QObject::tr("Total"), QObject::tr("Count"),
             QObject::tr("Mean"), QObject::tr("Max"),    QObject::tr("Min"),   QObject::tr("Std dev")};
        break;
    case LaunchTable: h = {QObject::tr("Statistic"), QObject::tr("Value")}; break;
    case QueueTable:
        h = {QObject::tr("Stream"), QObject::tr("Points"), QObject::tr("Mean"), QObject::tr("Std"), QObject::tr("Min"),
             QObject::tr("25 %"),   QObject::tr("Median"), QObject::tr("75 %"), QObject::tr("Max")};
        break;
    default: break;
    }
    return new BreakdownTableModel(h, parent);
}

void fillBreakdownTable(int table, BreakdownTableModel *model, const BreakdownSet &set)
{
    Rows rows;
    switch (table) {
    case TemporalTable: rows = temporalRows(set); break;
    case IdleTable:
        for (const HtaIdleTimeRow &r : set.hta.idle_time)
            rows.push_back({streamCell(r.stream), textCell(QString::fromStdString(r.idle_category)),
                            timeCell(r.idle_time_us), pctCell(100.0 * r.idle_time_ratio)});
        break;
    case KernelTypeTable:
        for (const HtaKernelTypeRow &r : set.hta.kernels_by_type)
            rows.push_back({textCell(QString::fromStdString(r.kernel_type)), timeCell(r.sum_us), pctCell(r.percentage, 1)});
        break;
    case TopKernelsTable:
        for (const HtaKernelRow &r : set.hta.kernels_by_kernel) {
            const QString name = QString::fromStdString(r.name);
            rows.push_back({textCell(QString::fromStdString(r.kernel_type)), textCell(name, name), timeCell(r.sum_us),
                            countCell(kernelCount(r)), timeCell(r.mean_us), timeCell(r.max_us), timeCell(r.min_us),
                            timeCell(r.stddev)});
        }
        break;
    case LaunchTable: rows = launchRows(set); break;
    case QueueTable:
        for (const QueueLengthSummary &q : set.queue.summary)
            rows.push_back({streamCell(q.stream), countCell(q.count), numCell(q.mean, 3),
                            numCell(q.std, 3), numCell(q.min, 0), numCell(q.p25, 2), numCell(q.p50, 2),
                            numCell(q.p75, 2), numCell(q.max, 0)});
        break;
    default: break;
    }
    model->setRows(std::move(rows));
}

} // namespace syncscope::ui
