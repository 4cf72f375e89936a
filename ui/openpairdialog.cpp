// SPDX-License-Identifier: MIT
#include "openpairdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>

namespace syncscope::ui {

namespace {

const QString kTraceFilter = QObject::tr("Trace JSON (*.json *.json.gz *.gz);;All files (*)");

QWidget *fileRow(QLineEdit *edit, QWidget *parent)
{
    auto *w = new QWidget(parent);
    auto *h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(edit, 1);
    auto *browse = new QPushButton(QObject::tr("Browse\u2026"), w);
    h->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, w, [edit, w] {
        const QString f = QFileDialog::getOpenFileName(w, QObject::tr("Choose a trace"), edit->text(), kTraceFilter);
        if (!f.isEmpty())
            edit->setText(f);
    });
    return w;
}

} // namespace

std::map<int, QStringList> tracesByRank(const QString &folder)
{
    std::map<int, QStringList> out;
    static const QRegularExpression rankRe(QStringLiteral("rank[-_]?(\\d+)"), QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression suffixRe(QStringLiteral("[._-](\\d+)\\.(?:pt\\.trace\\.)?json(?:\\.gz)?$"));
    const QDir dir(folder);
    const QStringList files =
        dir.entryList({QStringLiteral("*.json"), QStringLiteral("*.json.gz")}, QDir::Files, QDir::Name);
    for (const QString &f : files) {
        int rank = -1;
        auto m = rankRe.match(f);
        if (!m.hasMatch())
            m = suffixRe.match(f);
        if (m.hasMatch())
            rank = m.captured(1).toInt();
        out[rank] << dir.absoluteFilePath(f);
    }
    return out;
}

OpenPairDialog::OpenPairDialog(QWidget *parent)
    : QDialog(parent)
    , m_first(new QLineEdit(this))
    , m_second(new QLineEdit(this))
    , m_folder(new QLineEdit(this))
    , m_rank(new QComboBox(this))
{
    setWindowTitle(tr("Open trace pair"));
    m_first->setPlaceholderText(tr("host execution trace or Kineto trace"));
    m_second->setPlaceholderText(tr("the other one (optional: a Kineto trace alone works)"));
    auto *files = new QGroupBox(tr("Two files, in either order"), this);
    auto *form = new QFormLayout(files);
    form->addRow(tr("First:"), fileRow(m_first, files));
    form->addRow(tr("Second:"), fileRow(m_second, files));

    auto *folderBox = new QGroupBox(tr("Or a folder of per-rank traces"), this);
    auto *ff = new QFormLayout(folderBox);
    auto *folderRow = new QWidget(folderBox);
    auto *fh = new QHBoxLayout(folderRow);
    fh->setContentsMargins(0, 0, 0, 0);
    m_folder->setPlaceholderText(tr("type or paste a folder, or choose one"));
    fh->addWidget(m_folder, 1);
    auto *pick = new QPushButton(tr("Choose folder\u2026"), folderRow);
    fh->addWidget(pick);
    ff->addRow(tr("Folder:"), folderRow);
    ff->addRow(tr("Rank:"), m_rank);
    m_rank->setEnabled(false);
    connect(pick, &QPushButton::clicked, this, &OpenPairDialog::chooseFolder);
    // A typed or pasted folder lists its ranks once editing ends (Return or focus out).
    connect(m_folder, &QLineEdit::editingFinished, this, [this] { setFolder(m_folder->text().trimmed()); });
    connect(m_rank, qOverload<int>(&QComboBox::activated), this, &OpenPairDialog::rankChosen);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (!m_first->text().isEmpty() || !m_second->text().isEmpty())
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(files);
    layout->addWidget(folderBox);
    layout->addWidget(buttons);
    resize(620, sizeHint().height());
}

void OpenPairDialog::chooseFolder()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder of traces"), m_folder->text());
    if (!dir.isEmpty())
        setFolder(dir);
}

void OpenPairDialog::setFolder(const QString &dir)
{
    if (m_folder->text() != dir)
        m_folder->setText(dir);
    m_byRank = dir.isEmpty() || !QFileInfo(dir).isDir() ? std::map<int, QStringList>{} : tracesByRank(dir);
    m_rank->clear();
    for (const auto &[rank, files] : m_byRank) {
        QStringList names;
        for (const QString &f : files)
            names << QFileInfo(f).fileName();
        m_rank->addItem((rank < 0 ? tr("no rank") : tr("rank %1").arg(rank)) + QStringLiteral(": ") +
                            names.join(QStringLiteral(", ")),
                        rank);
    }
    m_rank->setEnabled(m_rank->count() > 0);
    if (m_rank->count() > 0)
        rankChosen(0);
}

void OpenPairDialog::rankChosen(int index)
{
    const QStringList files = m_byRank[m_rank->itemData(index).toInt()];
    m_first->setText(files.value(0));
    m_second->setText(files.value(1));
}

QString OpenPairDialog::firstFile() const
{
    return m_first->text().trimmed();
}

QString OpenPairDialog::secondFile() const
{
    return m_second->text().trimmed();
}

std::optional<int> OpenPairDialog::rank() const
{
    if (!m_rank->isEnabled() || m_rank->currentIndex() < 0)
        return std::nullopt;
    const int r = m_rank->currentData().toInt();
    return r >= 0 ? std::optional<int>(r) : std::nullopt;
}

} // namespace syncscope::ui
