// Example requests and answers of the insight endpoints, for the OpenAPI document.

const trendLink = (day: string) =>
  `/api/projects/1/persons/trends/?events=%5B%7B%22id%22%3A%22%24pageview%22%2C%22math%22%3A%22dau%22%7D%5D&date_from=${day}&date_to=${day}&entity_id=%24pageview&entity_type=events&entity_math=dau&entity_order=0`;

export const TREND_REQUEST = {
  events: [{ id: '$pageview', math: 'dau' }],
  date_from: '2024-01-01',
  date_to: '2024-01-03',
  interval: 'day',
};

export const TREND_EXAMPLE = {
  result: [
    {
      action: {
        id: '$pageview',
        type: 'events',
        order: 0,
        name: '$pageview',
        custom_name: null,
        math: 'dau',
        math_property: null,
      },
      label: '$pageview',
      count: 9,
      data: [4, 3, 2],
      days: ['2024-01-01', '2024-01-02', '2024-01-03'],
      labels: ['1-Jan-2024', '2-Jan-2024', '3-Jan-2024'],
      persons_urls: [
        { url: trendLink('2024-01-01') },
        { url: trendLink('2024-01-02') },
        { url: trendLink('2024-01-03') },
      ],
    },
  ],
  next: null,
};

const funnelLink = (step: number) =>
  `/api/projects/1/persons/funnel/?events=%5B%7B%22id%22%3A%22%24pageview%22%7D%2C%7B%22id%22%3A%22signup%22%7D%5D&date_from=2024-01-01+00%3A00%3A00.000&date_to=2024-01-07+23%3A59%3A59.999&explicit_date=true&funnel_step=${step}`;

export const FUNNEL_REQUEST = {
  events: [
    { id: '$pageview', order: 0 },
    { id: 'signup', order: 1 },
  ],
  date_from: '2024-01-01',
  date_to: '2024-01-07',
};

export const FUNNEL_EXAMPLE = {
  result: [
    {
      action_id: '$pageview',
      name: '$pageview',
      custom_name: null,
      order: 0,
      type: 'events',
      count: 120,
      average_conversion_time: null,
      median_conversion_time: null,
      converted_people_url: funnelLink(1),
      dropped_people_url: null,
    },
    {
      action_id: 'signup',
      name: 'signup',
      custom_name: null,
      order: 1,
      type: 'events',
      count: 45,
      average_conversion_time: 5400.5,
      median_conversion_time: 3600,
      converted_people_url: funnelLink(2),
      dropped_people_url: funnelLink(-2),
    },
  ],
};

const retentionLink = (k: number) =>
  `/api/projects/1/persons/retention/?target_entity=%7B%22id%22%3A%22%24pageview%22%2C%22type%22%3A%22events%22%7D&period=Day&total_intervals=3&date_to=2024-01-03+00%3A00%3A00.000&selected_interval=${k}`;

export const RETENTION_REQUEST = {
  target_entity: { id: '$pageview', type: 'events' },
  period: 'Day',
  total_intervals: 3,
  date_to: '2024-01-03',
};

export const RETENTION_EXAMPLE = {
  result: [0, 1, 2].map((k) => ({
    date: `2024-01-0${k + 1}T00:00:00Z`,
    label: `Day ${k}`,
    values: [[10, 6, 4], [8, 5], [9]][k].map((count) => ({ count, people_url: retentionLink(k) })),
    people_url: retentionLink(k),
  })),
};

const pathLink = (source: string, target: string) =>
  `/api/projects/1/persons/path/?include_event_types=%5B%22%24pageview%22%5D&date_from=2024-01-01+00%3A00%3A00.000&date_to=2024-01-07+23%3A59%3A59.999&explicit_date=true&path_start_key=${encodeURIComponent(source)}&path_end_key=${encodeURIComponent(target)}`;

export const PATH_REQUEST = { include_event_types: ['$pageview'], date_from: '2024-01-01', date_to: '2024-01-07' };

export const PATH_EXAMPLE = {
  result: [
    {
      source: '1_/home',
      target: '2_/pricing',
      value: 42,
      average_conversion_time: 61000,
      people_url: pathLink('1_/home', '2_/pricing'),
    },
    {
      source: '2_/pricing',
      target: '3_/signup',
      value: 17,
      average_conversion_time: 125500.5,
      people_url: pathLink('2_/pricing', '3_/signup'),
    },
  ],
};
