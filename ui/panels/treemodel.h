// SPDX-License-Identifier: MIT
// A small read-only tree of key/value rows for the panels; a row may point at
// an event (TargetEventRole), which the panel turns into a jump on click.
#pragma once

#include <QAbstractItemModel>

#include <memory>
#include <vector>

namespace syncscope::ui {

enum PanelRoles {
    TargetEventRole = Qt::UserRole + 1, // qint64 event id, -1 / invalid when the row is not a link
};

struct TreeNode {
    QString key, value, tooltip;
    qint64 target = -1;
    bool bold = false;
    TreeNode *parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<TreeNode>> children;

    TreeNode *add(const QString &key, const QString &value = {}, qint64 target = -1);
};

class TreeItemModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    explicit TreeItemModel(QObject *parent = nullptr);
    ~TreeItemModel() override;

    void setRoot(std::unique_ptr<TreeNode> root); // resets the model
    const TreeNode *root() const { return m_root.get(); }
    // The first top-level section with this key, or null.
    const TreeNode *section(const QString &key) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const TreeNode *node(const QModelIndex &index) const;
    std::unique_ptr<TreeNode> m_root;
};

} // namespace syncscope::ui
