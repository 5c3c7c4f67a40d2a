import { TimeWindowQuery } from '../../../shared/http/time-window.query.js';

export class TimelineQuery extends TimeWindowQuery {}
