// SPDX-License-Identifier: MIT
#include "theme.h"

#include <QApplication>
#include <QSettings>
#include <QStyle>

namespace syncscope::ui {

bool isDarkPalette(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

TimelineColors timelineColors(bool dark)
{
    TimelineColors c;
    c.dark = dark;
    if (dark) {
        c.background = QColor(0x1e, 0x1f, 0x22);
        c.laneStripe = QColor(0x26, 0x27, 0x2b);
        c.separator = QColor(0x3a, 0x3c, 0x42);
        c.text = QColor(0xe6, 0xe6, 0xe6);
        c.textDim = QColor(0x9a, 0x9d, 0xa5);
        c.header = QColor(0x2d, 0x30, 0x38);
        c.axis = QColor(0xb0, 0xb3, 0xba);
        c.grid = QColor(0x33, 0x35, 0x3b);
        c.selection = QColor(0xff, 0xd7, 0x00);
        c.measureFill = QColor(0x64, 0xb5, 0xf6, 50);
        c.measureEdge = QColor(0x64, 0xb5, 0xf6);
        c.critical = QColor(0xff, 0x52, 0x52);
        c.category = {QColor(0x5c, 0x8f, 0xd6), QColor(0x8e, 0x8e, 0xa0), QColor(0x6f, 0xa8, 0x8c),
                      QColor(0xb0, 0x8c, 0xd8), QColor(0x4c, 0xb8, 0x7a), QColor(0xe0, 0xa4, 0x58),
                      QColor(0xd4, 0xc2, 0x5a), QColor(0xe0, 0x6c, 0x6c), QColor(0x4a, 0xc0, 0xc8),
                      QColor(0x80, 0x80, 0x80)};
        c.edge = {QColor(0x90, 0xa4, 0xc0), QColor(0xff, 0x9f, 0x1c), QColor(0xff, 0x52, 0x52),
                  QColor(0xd0, 0x8c, 0xff)};
    } else {
        c.background = QColor(0xff, 0xff, 0xff);
        c.laneStripe = QColor(0xf5, 0xf6, 0xf8);
        c.separator = QColor(0xd8, 0xdb, 0xe0);
        c.text = QColor(0x1d, 0x1f, 0x23);
        c.textDim = QColor(0x5f, 0x63, 0x6b);
        c.header = QColor(0xe8, 0xeb, 0xf0);
        c.axis = QColor(0x44, 0x48, 0x50);
        c.grid = QColor(0xe6, 0xe8, 0xec);
        c.selection = QColor(0x0a, 0x66, 0xe0);
        c.measureFill = QColor(0x21, 0x96, 0xf3, 40);
        c.measureEdge = QColor(0x19, 0x76, 0xd2);
        c.critical = QColor(0xe0, 0x1e, 0x1e);
        c.category = {QColor(0x7d, 0xa7, 0xe8), QColor(0xc3, 0xc6, 0xd0), QColor(0x9c, 0xcf, 0xb4),
                      QColor(0xc9, 0xa9, 0xf0), QColor(0x5c, 0xc2, 0x86), QColor(0xf2, 0xb8, 0x6b),
                      QColor(0xe8, 0xd7, 0x6a), QColor(0xf0, 0x8a, 0x8a), QColor(0x5b, 0xc8, 0xd0),
                      QColor(0xb0, 0xb0, 0xb0)};
        c.edge = {QColor(0x6b, 0x7f, 0x9e), QColor(0xe6, 0x7e, 0x00), QColor(0xe0, 0x1e, 0x1e),
                  QColor(0x9b, 0x4d, 0xe0)};
    }
    c.criticalBand = c.critical;
    c.criticalBand.setAlpha(dark ? 120 : 100);
    return c;
}

QColor textOn(const QColor &fill)
{
    const double l = 0.299 * fill.redF() + 0.587 * fill.greenF() + 0.114 * fill.blueF();
    return l > 0.55 ? QColor(0x10, 0x10, 0x10) : QColor(0xf8, 0xf8, 0xf8);
}

namespace {

ThemeChoice g_theme = ThemeChoice::System;

// The desktop's palette, as it was before Syncscope changed it.
const QPalette &systemPalette()
{
    static const QPalette palette = QApplication::palette();
    return palette;
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6), dim(0x80, 0x83, 0x8a);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x27, 0x2b));
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, dim);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x52, 0x52));
    p.setColor(QPalette::Light, QColor(0x3a, 0x3c, 0x42));
    p.setColor(QPalette::Midlight, QColor(0x33, 0x35, 0x3b));
    p.setColor(QPalette::Mid, QColor(0x26, 0x27, 0x2b));
    p.setColor(QPalette::Dark, QColor(0x16, 0x17, 0x19));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x6f, 0xb5));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x64, 0xb5, 0xf6));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, dim);
    return p;
}

} // namespace

ThemeChoice currentTheme()
{
    return g_theme;
}

ThemeChoice savedTheme()
{
    const int v = QSettings().value(QStringLiteral("view/theme"), 0).toInt();
    return v == 1 ? ThemeChoice::Light : v == 2 ? ThemeChoice::Dark : ThemeChoice::System;
}

void applyTheme(ThemeChoice choice, bool save)
{
    const QPalette &system = systemPalette(); // taken before the first change
    g_theme = choice;
    if (save)
        QSettings().setValue(QStringLiteral("view/theme"), int(choice));
    switch (choice) {
    case ThemeChoice::System: QApplication::setPalette(system); break;
    case ThemeChoice::Light: QApplication::setPalette(isDarkPalette(system) ? QApplication::style()->standardPalette() : system); break;
    case ThemeChoice::Dark: QApplication::setPalette(darkPalette()); break;
    }
}

} // namespace syncscope::ui
