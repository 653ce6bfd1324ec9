//! The ZooKeeper service as the first stage's build has it: none. Its `validate` refuses
//! `lock.zookeeper`, so no such scenario reaches its engine; the type has no value, every
//! method is an empty match, and the service's code stays out of the first download.

use super::queue::{Item, Queue};
use super::world::World;
use crate::sim::scenario::{Scenario, Zookeeper};
use crate::sim::trace::{ZkState, ZkTrace};

pub enum ZkService {}

impl ZkService {
    pub fn new(_: &Scenario, _: &Zookeeper) -> Option<ZkService> {
        None
    }
    pub fn schedule(&self, _: &mut Queue) {
        match *self {}
    }
    pub fn is_waiting(&self, _: usize) -> bool {
        match *self {}
    }
    pub fn block(&mut self, _: usize, _: Item) {
        match *self {}
    }
    pub fn holds(&self, _: usize) -> bool {
        match *self {}
    }
    pub fn holds_back(&self, _: usize) -> Option<ZkState> {
        match *self {}
    }
    pub fn next_ping(&self, _: &mut World, _: u64, _: usize) {
        match *self {}
    }
    pub fn ping(&mut self, _: &mut World, _: u64, _: usize) -> bool {
        match *self {}
    }
    pub fn acquire(&mut self, _: &mut World, _: u64, _: usize, _: usize) {
        match *self {}
    }
    pub fn release(&mut self, _: &mut World, _: u64, _: usize, _: usize) {
        match *self {}
    }
    pub fn expire(&mut self, _: &mut World, _: u64, _: usize, _: u64, _: i64) {
        match *self {}
    }
    pub fn ensemble_event(&mut self, _: &mut World, _: u64, _: usize) {
        match *self {}
    }
    pub fn crashed(&mut self, _: &mut World, _: u64, _: usize) {
        match *self {}
    }
    pub fn settings(&self) -> ZkTrace {
        match *self {}
    }
    pub fn finish(self, _: u64) -> ZkTrace {
        match self {}
    }
}
