"""Recurring series (docs/spec/series-design.md): RecurrenceRule, and the rule, template, exdates, switches
and generation cursor of EventSeries."""

import common.timezones
import django.core.validators
import django.db.models.deletion
import events.utils.recurrence_validators
import uuid
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('events', '0005_waitlist_selection_order_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='eventseries',
            name='auto_publish',
            field=models.BooleanField(default=False, help_text='Occurrences are created open instead of draft.'),
        ),
        migrations.AddField(
            model_name='eventseries',
            name='exdates',
            field=models.JSONField(blank=True, default=list, help_text='UTC ISO instants excluded or cancelled.'),
        ),
        migrations.AddField(
            model_name='eventseries',
            name='generation_window_weeks',
            field=models.PositiveSmallIntegerField(default=8, validators=[events.utils.recurrence_validators.validate_generation_window_weeks]),
        ),
        migrations.AddField(
            model_name='eventseries',
            name='is_active',
            field=models.BooleanField(default=True, help_text='False pauses generation.'),
        ),
        migrations.AddField(
            model_name='eventseries',
            name='last_generated_until',
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='eventseries',
            name='template_event',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='template_of_series', to='events.event'),
        ),
        migrations.CreateModel(
            name='RecurrenceRule',
            fields=[
                ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('frequency', models.CharField(choices=[('daily', 'Daily'), ('weekly', 'Weekly'), ('monthly', 'Monthly'), ('yearly', 'Yearly')], max_length=8)),
                ('interval', models.PositiveIntegerField(default=1, validators=[django.core.validators.MinValueValidator(1)])),
                ('weekdays', models.JSONField(blank=True, default=list, help_text='0 = Monday … 6 = Sunday.')),
                ('monthly_type', models.CharField(blank=True, choices=[('day', 'Day Of Month'), ('weekday', 'Nth Weekday')], max_length=8, null=True)),
                ('day_of_month', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('nth_weekday', models.SmallIntegerField(blank=True, help_text='1..4, or -1 = last.', null=True)),
                ('weekday', models.PositiveSmallIntegerField(blank=True, help_text='0 = Monday.', null=True)),
                ('dtstart', models.DateTimeField()),
                ('until', models.DateTimeField(blank=True, null=True)),
                ('count', models.PositiveIntegerField(blank=True, null=True)),
                ('timezone', models.CharField(default='UTC', max_length=64, validators=[common.timezones.validate_timezone])),
                ('rrule_string', models.TextField(blank=True, editable=False)),
            ],
            options={
                'constraints': [models.CheckConstraint(condition=models.Q(('interval__gte', 1)), name='recurrence_interval_positive'), models.CheckConstraint(condition=models.Q(('until__isnull', True), ('count__isnull', True), _connector='OR'), name='recurrence_one_end')],
            },
        ),
        migrations.AddField(
            model_name='eventseries',
            name='recurrence_rule',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='series', to='events.recurrencerule'),
        ),
    ]
