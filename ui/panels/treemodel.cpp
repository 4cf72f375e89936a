// SPDX-License-Identifier: MIT
#include "treemodel.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

namespace syncscope::ui {

TreeNode *TreeNode::add(const QString &k, const QString &v, qint64 t)
{
    auto n = std::make_unique<TreeNode>();
    n->key = k;
    n->value = v;
    n->target = t;
    n->parent = this;
    n->row = static_cast<int>(children.size());
    children.push_back(std::move(n));
    return children.back().get();
}

TreeItemModel::TreeItemModel(QObject *parent)
    : QAbstractItemModel(parent)
    , m_root(std::make_unique<TreeNode>())
{
}

TreeItemModel::~TreeItemModel() = default;

void TreeItemModel::setRoot(std::unique_ptr<TreeNode> root)
{
    beginResetModel();
    m_root = root ? std::move(root) : std::make_unique<TreeNode>();
    endResetModel();
}

const TreeNode *TreeItemModel::section(const QString &key) const
{
    for (const auto &c : m_root->children)
        if (c->key == key)
            return c.get();
    return nullptr;
}

const TreeNode *TreeItemModel::node(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<const TreeNode *>(index.internalPointer()) : m_root.get();
}

QModelIndex TreeItemModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= 2 || (parent.isValid() && parent.column() != 0))
        return {};
    const TreeNode *p = node(parent);
    if (row >= static_cast<int>(p->children.size()))
        return {};
    return createIndex(row, column, p->children[static_cast<size_t>(row)].get());
}

QModelIndex TreeItemModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const TreeNode *n = node(child);
    const TreeNode *p = n->parent;
    if (!p || p == m_root.get())
        return {};
    return createIndex(p->row, 0, const_cast<TreeNode *>(p));
}

int TreeItemModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return static_cast<int>(node(parent)->children.size());
}

int TreeItemModel::columnCount(const QModelIndex &) const
{
    return 2;
}

QVariant TreeItemModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const TreeNode *n = node(index);
    switch (role) {
    case Qt::DisplayRole:
        return index.column() == 0 ? n->key : n->value;
    case Qt::ToolTipRole:
        return n->tooltip.isEmpty() ? (index.column() == 0 ? n->key : n->value) : n->tooltip;
    case TargetEventRole:
        return n->target >= 0 ? QVariant(n->target) : QVariant();
    case Qt::FontRole:
        if (n->bold || (n->target >= 0 && index.column() == 1)) {
            QFont f;
            f.setBold(n->bold);
            f.setUnderline(n->target >= 0 && index.column() == 1);
            return f;
        }
        return {};
    case Qt::ForegroundRole:
        if (n->target >= 0 && index.column() == 1)
            return QGuiApplication::palette().color(QPalette::Link);
        return {};
    default:
        return {};
    }
}

QVariant TreeItemModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == 0 ? tr("Field") : tr("Value");
}

} // namespace syncscope::ui
