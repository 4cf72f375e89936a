// SPDX-License-Identifier: MIT
// The rules of Ctrl+F, shared by the single-rank search and the search over a
// job's ranks: a name substring or regular expression (each distinct name is
// matched once per trace, not once per event), or a number that is an event's
// correlation, External id or RF id.
#pragma once

#include "model/kinetotrace.h"

#include <QRegularExpression>
#include <QString>

#include <cstdint>
#include <vector>

namespace syncscope::ui {

class EventQuery
{
public:
    EventQuery(const QString &text, bool regex, bool caseSensitive);

    // False for an invalid regular expression (error() says why).
    bool valid() const { return m_error.isEmpty(); }
    QString error() const { return m_error; }

    // Calls hit(i) for every event i of `trace`, in index order, that keep(i) admits and that matches.
    template <class Keep, class Hit>
    void scan(const KinetoTrace &trace, Keep keep, Hit hit) const
    {
        std::vector<int8_t> nameMatch(trace.strings.size(), -1);
        for (uint32_t i = 0; i < trace.events.size(); ++i) {
            if (!keep(i))
                continue;
            const KinetoEvent &e = trace.events[i];
            int8_t &m = nameMatch[e.name];
            if (m < 0)
                m = nameMatches(trace.str(e.name)) ? 1 : 0;
            if (m > 0 || idMatches(e))
                hit(i);
        }
    }

private:
    bool nameMatches(std::string_view name) const;
    bool idMatches(const KinetoEvent &e) const;

    QString m_text;
    bool m_regex = false;
    Qt::CaseSensitivity m_case = Qt::CaseInsensitive;
    QRegularExpression m_re;
    QString m_error;
    bool m_isNumber = false;
    qlonglong m_number = 0;
};

} // namespace syncscope::ui
