"""The words of a dashboard's numbers (``get_dashboard_data``): the filters used, each chart's
rows, and two environments' numbers side by side."""

FILTERS = "Данные с фильтрами страницы: {filters}."
NO_FILTERS = "Данные без фильтров: у страницы их не было."
NO_CHARTS = "У этого дашборда нет графиков с данными."
SKIPPED = "Фильтры по {columns} к этому графику не применены: в его датасете таких колонок нет."
FAILED = "Superset не посчитал этот график: {error}"
EMPTY = "Строк нет."
MORE_ROWS = "Показано строк: {shown} из {total}."
EXCEPT = "кроме"
ROW = "строка"  # the axis of a compared chart's differing rows
COMPARED = "Сравнил {here} и {there}{filters}: {verdict}"
COMPARED_FILTERS = " с фильтрами страницы ({filters})"
ALL_SAME = "цифры совпадают во всех графиках ({count})."
SOME_DIFFER = "различаются графики: {differ} из {total}."
DIFF_HEAD = "| Строка | Показатель | {here} | {there} |"
NO_ROW = "нет строки"
MORE_DIFFERENCES = "И ещё различий: {count}."
CHART_MISSING = "В {there} у этого дашборда нет такого графика."
DASHBOARDS_DIFFER = (
    "Сами дашборды тоже различаются: перенос из {here} в {there} изменил бы {there}. Что именно "
    "— покажет план: «сравни этот дашборд с {there}»."
)
DASHBOARD_ABSENT = "В {there} этого дашборда нет — сравнивать не с чем."
