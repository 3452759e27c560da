//! `vermas report`: the HTML page, the job summary, the browser tests.

mod page_tests;
