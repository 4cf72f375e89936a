// SPDX-License-Identifier: MIT
#include "detailsmodel.h"

#include "analysis/criticalpath.h"
#include "analysis/graphcapture.h"
#include "analysis/syncinfer.h"
#include "session/analysis.h"
#include "timeline/timeformat.h"
#include "timeline/timelinemodel.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

namespace {

using json = nlohmann::json;

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString dur(double ns)
{
    return QString::fromStdString(formatDuration(ns));
}

QString valueText(const json &v)
{
    if (v.is_string())
        return QString::fromStdString(v.get<std::string>());
    return QString::fromStdString(v.dump(-1, ' ', false, json::error_handler_t::replace));
}

// "1 GPU op", "3 GPU ops".
QString gpuOpsText(size_t n)
{
    return n == 1 ? QStringLiteral("1 GPU op") : QStringLiteral("%1 GPU ops").arg(n);
}

const char *syncKindText(uint8_t k)
{
    return syncKindName(static_cast<SyncKind>(k));
}

QString cpEdgeText(uint8_t t)
{
    switch (static_cast<CpEdgeType>(t)) {
    case CpEdgeType::OperatorKernel: return QStringLiteral("operator");
    case CpEdgeType::Dependency: return QStringLiteral("dependency");
    case CpEdgeType::KernelLaunchDelay: return QStringLiteral("kernel launch delay");
    case CpEdgeType::KernelKernelDelay: return QStringLiteral("kernel-kernel delay");
    case CpEdgeType::SyncDependency: return QStringLiteral("sync dependency");
    }
    return {};
}

// Inputs/outputs of a host node: nested (1.0.2+: {values, shapes, types}) or flat
// (1.0.1: inputs, input_shapes, input_types).
void addTensorList(TreeNode *parent, const QString &title, const json &node, const char *key, const char *shapesKey,
                   const char *typesKey)
{
    json values, shapes, types;
    auto it = node.find(key);
    if (it == node.end())
        return;
    if (it->is_object()) {
        values = it->value("values", json::array());
        shapes = it->value("shapes", json::array());
        types = it->value("types", json::array());
    } else {
        values = *it;
        shapes = node.value(shapesKey, json::array());
        types = node.value(typesKey, json::array());
    }
    if (!values.is_array())
        return;
    TreeNode *sec = parent->add(title, QString::number(values.size()));
    for (size_t i = 0; i < values.size(); ++i) {
        const QString type = types.is_array() && i < types.size() ? valueText(types[i]) : QString();
        const QString shape = shapes.is_array() && i < shapes.size() ? valueText(shapes[i]) : QString();
        QString text = type;
        if (!shape.isEmpty() && shape != QLatin1String("[]"))
            text += (text.isEmpty() ? QString() : QStringLiteral(" ")) + shape;
        if (!type.startsWith(QLatin1String("Tensor")) || text.isEmpty())
            text += (text.isEmpty() ? QString() : QStringLiteral(" = ")) + valueText(values[i]);
        TreeNode *row = sec->add(QStringLiteral("[%1]").arg(i), text);
        row->tooltip = QStringLiteral("value %1\ntype %2\nshape %3").arg(valueText(values[i]), type, shape);
    }
}

} // namespace

DetailsModel::DetailsModel(QObject *parent)
    : TreeItemModel(parent)
{
}

void DetailsModel::setSources(std::shared_ptr<const Analysis> analysis, std::shared_ptr<const TimelineModel> model)
{
    if (analysis != m_analysis)
        m_hostIndex.clear();
    m_analysis = std::move(analysis);
    m_model = std::move(model);
    m_shiftNs = 0;
    m_timeBase = m_model ? QString::fromStdString(m_model->timeBaseShort) : QString();
    rebuild();
}

void DetailsModel::setTimeBase(double shiftNs, const QString &label)
{
    m_shiftNs = shiftNs;
    m_timeBase = label;
    rebuild();
}

void DetailsModel::setEvent(qint64 event)
{
    m_event = event;
    rebuild();
}

QString DetailsModel::eventLabel(uint32_t ev) const
{
    if (!m_model)
        return {};
    return QStringLiteral("%1  @ %2").arg(qs(m_model->name(ev)), dur(m_model->startNs(ev) + m_shiftNs));
}

void DetailsModel::rebuild()
{
    auto root = std::make_unique<TreeNode>();
    const KinetoTrace *trace = m_model ? m_model->trace.get() : nullptr;
    if (!trace || m_event < 0 || m_event >= static_cast<qint64>(trace->events.size())) {
        setRoot(std::move(root));
        return;
    }
    const uint32_t ev = static_cast<uint32_t>(m_event);
    const KinetoEvent &e = trace->events[ev];

    TreeNode *sec = root->add(eventSection());
    sec->bold = true;
    sec->add(tr("Name"), qs(trace->str(e.name)));
    sec->add(tr("Category"), qs(trace->str(e.cat)) + QStringLiteral(" (") + QLatin1String(eventKindName(e.kind)) +
                                 QStringLiteral(")"));
    sec->add(tr("Lane"), QString::fromStdString(m_model->laneName(ev)));
    // In the view's time base, as the axis reads; the trace's own timestamp as an extra row.
    TreeNode *start = sec->add(tr("Start"), dur(double(e.tsNs - m_model->originNs) + m_shiftNs) + QLatin1Char(' ') + m_timeBase);
    start->tooltip = tr("The time axis' time of the op (%1)").arg(m_timeBase);
    sec->add(tr("Timestamp (raw)"), QStringLiteral("%1 \u00b5s").arg(e.ts, 0, 'f', 3))->tooltip =
        tr("ts as the trace records it, on the rank's own clock (%1 ns)").arg(e.tsNs);
    sec->add(tr("Duration"), dur(double(e.durNs)))->tooltip = QStringLiteral("%1 ns").arg(e.durNs);
    sec->add(tr("Event index"), QString::number(ev));
    if (e.has(KinetoEvent::HasCorrelation))
        sec->add(tr("Correlation"), QString::number(e.correlation));
    if (e.has(KinetoEvent::HasExternalId))
        sec->add(tr("External id"), QString::number(e.externalId));
    if (e.has(KinetoEvent::HasRfId))
        sec->add(tr("Record function id"), QString::number(e.rfId));
    if (e.streamForm == StreamForm::Integer)
        sec->add(tr("Stream"), QString::number(e.stream));
    if (m_model->layout.isCritical(ev))
        sec->add(tr("Critical path"), tr("on the critical path"))->bold = true;
    if ((e.kind == EventKind::Runtime || e.kind == EventKind::Driver) &&
        classifyRuntimeApi(trace->str(e.name)) == RuntimeApi::GraphLaunch) {
        const std::vector<uint32_t> ops = launchedBy(ev);
        TreeNode *g = sec->add(graphLaunchKey(), tr("replays %1").arg(gpuOpsText(ops.size())),
                               ops.empty() ? -1 : qint64(ops.front()));
        g->tooltip = tr("Every GPU op with correlation %1 belongs to this launch; the link goes to the first").arg(e.correlation);
    }

    // Every arg, from the event's own JSON text.
    const std::string_view raw = trace->rawEvent(ev);
    if (!raw.empty()) {
        const json j = json::parse(raw.begin(), raw.end(), nullptr, false);
        auto args = j.is_object() ? j.find("args") : j.end();
        if (j.is_object() && args != j.end() && args->is_object() && !args->empty()) {
            TreeNode *a = root->add(argsSection(), QString::number(args->size()));
            a->bold = true;
            for (auto it = args->begin(); it != args->end(); ++it)
                a->add(QString::fromStdString(it.key()), valueText(it.value()));
        }
    }
    addHostNode(root.get(), ev);
    addGpuActivities(root.get(), ev);
    addEdges(root.get(), ev);
    setRoot(std::move(root));
}

void DetailsModel::addHostNode(TreeNode *root, uint32_t ev)
{
    if (!m_analysis || !m_analysis->link || !m_analysis->host)
        return;
    const LinkResult &link = *m_analysis->link;
    const HostTrace &host = *m_analysis->host;
    if (ev >= link.eventHost.size() || link.eventHost[ev] < 0)
        return;
    const uint32_t index = static_cast<uint32_t>(link.eventHost[ev]);
    if (index >= host.nodes.size())
        return;
    const HostNode &n = host.nodes[index];
    TreeNode *sec = root->add(hostSection(), QStringLiteral("#%1").arg(n.id));
    sec->bold = true;
    sec->add(tr("Id"), QString::number(n.id));
    sec->add(tr("Name"), qs(host.str(n.name)));
    if (n.has(HostNode::HasRfId))
        sec->add(tr("rf_id"), QString::number(n.rfId));
    if (n.has(HostNode::HasParent)) {
        if (m_hostIndex.empty())
            for (uint32_t i = 0; i < host.nodes.size(); ++i)
                m_hostIndex.emplace(host.nodes[i].id, i);
        auto p = m_hostIndex.find(n.parent);
        QString text = QString::number(n.parent);
        qint64 target = -1;
        if (p != m_hostIndex.end()) {
            text += QStringLiteral("  ") + qs(host.str(host.nodes[p->second].name));
            if (p->second < link.hostEvent.size())
                target = link.hostEvent[p->second];
        }
        sec->add(tr("Parent"), text, target);
    }
    const std::string_view text = host.nodeText(n);
    const json node = json::parse(text.begin(), text.end(), nullptr, false);
    if (!node.is_object())
        return;
    addTensorList(sec, tr("Inputs"), node, "inputs", "input_shapes", "input_types");
    addTensorList(sec, tr("Outputs"), node, "outputs", "output_shapes", "output_types");
    auto attrs = node.find("attrs");
    if (attrs != node.end() && attrs->is_array() && !attrs->empty()) {
        TreeNode *a = sec->add(tr("Attributes"), QString::number(attrs->size()));
        for (const json &at : *attrs) {
            if (!at.is_object())
                continue;
            TreeNode *row = a->add(valueText(at.value("name", json())), valueText(at.value("value", json())));
            row->tooltip = valueText(at.value("type", json()));
        }
    }
}

void DetailsModel::addGpuActivities(TreeNode *root, uint32_t ev)
{
    const KinetoTrace &trace = *m_model->trace;
    const KinetoEvent &e = trace.events[ev];
    if (isGpuActivity(e.kind)) {
        TreeNode *sec = nullptr;
        auto section = [&] {
            if (!sec) {
                sec = root->add(launchedFromSection());
                sec->bold = true;
            }
            return sec;
        };
        const LinkResult *link = m_analysis && m_analysis->link ? &*m_analysis->link : nullptr;
        if (link && ev < link->gpuParent.size() && link->gpuParent[ev] >= 0)
            section()->add(tr("CPU op"), eventLabel(static_cast<uint32_t>(link->gpuParent[ev])), link->gpuParent[ev]);
        const int64_t launcher = launcherOf(ev);
        if (launcher < 0)
            return;
        const uint32_t call = static_cast<uint32_t>(launcher);
        section()->add(tr("Runtime call"), eventLabel(call), launcher);
        // A CUDA/HIP graph replay: one launch call, every replayed op carries its correlation.
        const KinetoEvent &l = trace.events[call];
        if (classifyRuntimeApi(trace.str(l.name)) == RuntimeApi::GraphLaunch) {
            const std::vector<uint32_t> ops = launchedBy(call);
            const auto at = std::find(ops.begin(), ops.end(), ev);
            QString text = tr("%1 (replays %2)").arg(qs(trace.str(l.name)), gpuOpsText(ops.size()));
            if (at != ops.end())
                text += tr(", #%1").arg(at - ops.begin() + 1);
            text += QStringLiteral("  @ ") + dur(m_model->startNs(call));
            TreeNode *g = section()->add(graphLaunchKey(), text, launcher);
            g->tooltip = tr("Correlation %1 is shared by the %2 this graph launch replays")
                             .arg(QString::number(l.correlation), gpuOpsText(ops.size()));
            addCapturedOrigin(section(), ev);
        }
        return;
    }
    if (!isCpuSideOp(e.kind) || !m_analysis || !m_analysis->link)
        return;
    const auto &parents = m_analysis->link->gpuParent;
    TreeNode *sec = nullptr;
    for (size_t i = 0; i < parents.size(); ++i) {
        if (parents[i] != static_cast<int32_t>(ev))
            continue;
        if (!sec) {
            sec = root->add(gpuSection());
            sec->bold = true;
        }
        const uint32_t g = static_cast<uint32_t>(i);
        sec->add(QString::fromStdString(m_model->laneName(g)),
                 QStringLiteral("%1 (%2)").arg(eventLabel(g), dur(m_model->endNs(g) - m_model->startNs(g))), g);
    }
    if (sec)
        sec->value = QString::number(sec->children.size());
}

// A replayed graph op has no CPU op of its own: the one its launch was captured in
// (analysis/graphcapture.h), when the capture trace was read.
void DetailsModel::addCapturedOrigin(TreeNode *sec, uint32_t ev)
{
    const CapturedOrigin *o = m_analysis && m_analysis->graphCapture ? m_analysis->graphCapture->find(ev) : nullptr;
    if (!o)
        return;
    TreeNode *c = sec->add(tr("Captured in"), o->opName.empty() ? tr("(no CPU op)") : qs(o->opName));
    c->tooltip = tr("The CPU op that launched this kernel while the graph was captured, in %1 (matched by %2)")
                     .arg(qs(m_analysis->graphCapture->capturePath), qs(m_analysis->graphCapture->method));
    if (!o->inputDims.empty())
        sec->add(tr("Captured input shapes"), qs(o->inputDims));
    if (!o->pythonStack.empty()) {
        TreeNode *p = sec->add(tr("Captured Python stack"), qs(o->pythonStack));
        p->tooltip = qs(o->pythonStack);
    }
}

int64_t DetailsModel::launcherOf(uint32_t ev) const
{
    if (m_analysis && m_analysis->link && ev < m_analysis->link->gpuLauncher.size() &&
        m_analysis->link->gpuLauncher[ev] >= 0)
        return m_analysis->link->gpuLauncher[ev];
    for (const EdgeRef &ref : m_model->edges.edgesOf(ev))
        if (ref.kind == EdgeKind::Launch && m_model->edges.edges(ref.kind)[ref.id].to == ev)
            return m_model->edges.edges(ref.kind)[ref.id].from;
    return -1;
}

std::vector<uint32_t> DetailsModel::launchedBy(uint32_t launch) const
{
    std::vector<uint32_t> ops;
    for (const EdgeRef &ref : m_model->edges.edgesOf(launch)) {
        const TimelineEdge &e = m_model->edges.edges(ref.kind)[ref.id];
        if (ref.kind == EdgeKind::Launch && e.from == launch)
            ops.push_back(e.to);
    }
    std::sort(ops.begin(), ops.end(), [this](uint32_t a, uint32_t b) {
        const double ta = m_model->startNs(a), tb = m_model->startNs(b);
        return ta != tb ? ta < tb : a < b;
    });
    return ops;
}

void DetailsModel::addEdges(TreeNode *root, uint32_t ev)
{
    const auto refs = m_model->edges.edgesOf(ev);
    if (refs.empty())
        return;
    TreeNode *in = nullptr, *out = nullptr;
    for (const EdgeRef &ref : refs) {
        const TimelineEdge &edge = m_model->edges.edges(ref.kind)[ref.id];
        const bool incoming = edge.to == ev;
        TreeNode *&sec = incoming ? in : out;
        if (!sec) {
            sec = root->add(incoming ? incomingSection() : outgoingSection());
            sec->bold = true;
        }
        QString kind = QLatin1String(edgeKindName(ref.kind));
        if (ref.kind == EdgeKind::Sync)
            kind += QStringLiteral(" (%1, %2, waited %3)")
                        .arg(QLatin1String(syncKindText(edge.detail)),
                             edge.inferred ? QStringLiteral("inferred") : QStringLiteral("cuda_sync"),
                             dur(double(edge.valueUs) * 1000));
        else if (ref.kind == EdgeKind::CriticalPath)
            kind += QStringLiteral(" (%1, %2)").arg(cpEdgeText(edge.detail), dur(double(edge.valueUs) * 1000));
        const uint32_t other = incoming ? edge.from : edge.to;
        sec->add(kind, (incoming ? QStringLiteral("\u2190 ") : QStringLiteral("\u2192 ")) + eventLabel(other), other);
    }
    for (TreeNode *s : {in, out})
        if (s)
            s->value = QString::number(s->children.size());
}

} // namespace syncscope::ui
