from datetime import UTC, datetime

from mnemo.domain.when import date_spans


def test_a_named_day_covers_that_day_with_slack_on_both_sides() -> None:
    for text in ("What did Tim read on 8th December, 2023?", "what happened on December 8, 2023",
                 "notes from 2023-12-08", "on the 8 of dec 2023"):
        (span,) = date_spans(text, slack_days=1)
        assert span.start == datetime(2023, 12, 7, tzinfo=UTC), text
        assert span.end == datetime(2023, 12, 10, tzinfo=UTC), text
        assert span.contains(datetime(2023, 12, 8, 23, 59, tzinfo=UTC))
        assert not span.contains(datetime(2023, 12, 10, tzinfo=UTC))


def test_a_named_month_covers_the_month_and_december_ends_at_the_new_year() -> None:
    (span,) = date_spans("What did John do in December 2023?", slack_days=0)
    assert (span.start, span.end) == (datetime(2023, 12, 1, tzinfo=UTC), datetime(2024, 1, 1, tzinfo=UTC))


def test_no_date_no_span_and_impossible_or_relative_dates_are_ignored() -> None:
    assert date_spans("What instruments does Melanie play?") == []
    assert date_spans("what did I say last week, or in May?") == []
    assert date_spans("on 31 February, 2024") == []
    assert date_spans("the 2023-13-40 build") == []


def test_a_full_date_is_one_span_not_also_its_month() -> None:
    assert len(date_spans("on 16 November, 2023 and in January 2024")) == 2
