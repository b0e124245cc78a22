from datetime import UTC, datetime, timedelta

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


def test_a_month_without_its_year_is_the_latest_such_month_begun_when_asked() -> None:
    asked = datetime(2023, 8, 20, tzinfo=UTC)
    (june,) = date_spans("When did Melanie go camping in June?", slack_days=0, now=asked)
    assert (june.start, june.end) == (datetime(2023, 6, 1, tzinfo=UTC), datetime(2023, 7, 1, tzinfo=UTC))
    (august,) = date_spans("the pride parade in August", slack_days=0, now=asked)  # the month under way
    assert august.start == datetime(2023, 8, 1, tzinfo=UTC)
    (november,) = date_spans("Which country was Tim visiting in the second week of November?", slack_days=0,
                             now=asked)
    assert (november.start, november.end) == (datetime(2022, 11, 1, tzinfo=UTC), datetime(2022, 12, 1, tzinfo=UTC))
    (december,) = date_spans("What deal did John get in December?", slack_days=1, now=asked)
    assert (december.start, december.end) == (datetime(2022, 11, 30, tzinfo=UTC), datetime(2023, 1, 2, tzinfo=UTC))


def test_a_month_without_a_year_needs_the_moment_of_asking_and_may_the_verb_is_no_month() -> None:
    asked = datetime(2023, 8, 20, tzinfo=UTC)
    assert date_spans("When did Melanie go camping in June?") == []
    assert date_spans("May I ask what you may have read?", now=asked) == []
    assert date_spans("I would go in may", slack_days=0, now=asked)[0].start.month == 5
    # with its year or its day it is read as before, once
    assert len(date_spans("in June 2023", now=asked)) == 1
    (day,) = date_spans("on the 8th of June, 2023", slack_days=0, now=asked)
    assert day.end - day.start == timedelta(days=1)


def test_a_date_written_without_a_space_after_its_comma_is_read() -> None:
    (span,) = date_spans("Where was the forest picture shared by John on December 1,2023 taken?", slack_days=0)
    assert span.start == datetime(2023, 12, 1, tzinfo=UTC)
