// SPDX-License-Identifier: MIT
#include "startpage.h"

#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace syncscope::ui {

StartPage::StartPage(QWidget *parent)
    : QWidget(parent)
    , m_recent(new QListWidget(this))
    , m_sample(new QPushButton(tr("Open the sample pair"), this))
    , m_folder(new QPushButton(tr("Open a job or hang dumps folder\u2026"), this))
{
    auto *title = new QLabel(tr("<h2>Syncscope</h2><p>Link a PyTorch host execution trace with its Kineto trace, "
                                "see CPU threads, GPU streams, sync edges and the critical path.</p>"),
                             this);
    title->setWordWrap(true);
    auto *open = new QPushButton(tr("Open trace pair\u2026"), this);
    open->setDefault(true);
    m_folder->setToolTip(tr("A folder of ranks' traces opens as a job; a folder of NCCL flight recorder dumps "
                            "opens the hang view"));
    auto *hint = new QLabel(tr("You can also drop one or two trace files (.json or .json.gz), or a folder, on this "
                               "window."),
                            this);
    hint->setWordWrap(true);
    auto *recentTitle = new QLabel(tr("<b>Recent</b>"), this);
    auto *column = new QVBoxLayout;
    column->addWidget(title);
    column->addSpacing(8);
    column->addWidget(open);
    column->addWidget(m_folder);
    column->addWidget(m_sample);
    column->addWidget(hint);
    column->addSpacing(12);
    column->addWidget(recentTitle);
    column->addWidget(m_recent, 1);
    auto *outer = new QHBoxLayout(this);
    outer->addStretch(1);
    outer->addLayout(column, 2);
    outer->addStretch(1);
    connect(open, &QPushButton::clicked, this, &StartPage::openPairRequested);
    connect(m_sample, &QPushButton::clicked, this, &StartPage::sampleRequested);
    connect(m_folder, &QPushButton::clicked, this, &StartPage::openFolderRequested);
    connect(m_recent, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        const int i = m_recent->row(item);
        if (i >= 0 && i < static_cast<int>(m_pairs.size()))
            Q_EMIT recentRequested(m_pairs[static_cast<size_t>(i)]);
    });
    refresh();
}

void StartPage::refresh()
{
    m_pairs = recentPairs();
    m_recent->clear();
    for (const RecentPair &p : m_pairs) {
        auto *item = new QListWidgetItem(p.label(), m_recent);
        item->setToolTip(p.host.isEmpty() ? p.device : p.host + QLatin1Char('\n') + p.device);
    }
    if (m_pairs.empty())
        m_recent->addItem(tr("(none yet)"));
}

void StartPage::setSampleAvailable(bool available)
{
    m_sample->setEnabled(available);
    m_sample->setToolTip(available ? QString() : tr("The bundled sample pair was not found"));
}

} // namespace syncscope::ui
